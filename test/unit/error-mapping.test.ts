import { mapError } from '../../src/api/error-mapping';
import { DomainError, ErrorCode, httpStatusOf } from '../../src/domain/errors';

describe('mapError', () => {
  it.each(Object.values(ErrorCode).map((code) => [code]))(
    'passes DomainError %s through with its status',
    (code) => {
      const mapped = mapError(new DomainError(code, `message for ${code}`, 'some details'));
      expect(mapped).toEqual({
        code,
        status: httpStatusOf[code],
        message: `message for ${code}`,
        details: 'some details',
        unexpected: false,
      });
    },
  );

  it('maps a missing required query property to missing_parameter 400 naming it', () => {
    const mapped = mapError({
      validation: [{ keyword: 'required', instancePath: '', params: { missingProperty: 'from' } }],
      validationContext: 'querystring',
    });
    expect(mapped.code).toBe(ErrorCode.MissingParameter);
    expect(mapped.status).toBe(400);
    expect(mapped.message).toContain('from');
    expect(mapped.unexpected).toBe(false);
  });

  it('includes the nested path of a missing body property', () => {
    const mapped = mapError({
      validation: [
        { keyword: 'required', instancePath: '/settlement', params: { missingProperty: 'chain' } },
      ],
      validationContext: 'body',
    });
    expect(mapped.code).toBe(ErrorCode.MissingParameter);
    expect(mapped.message).toContain('settlement.chain');
  });

  it('maps an unknown property to invalid_parameter naming it', () => {
    const mapped = mapError({
      validation: [
        {
          keyword: 'additionalProperties',
          instancePath: '',
          params: { additionalProperty: 'foo' },
        },
      ],
      validationContext: 'querystring',
    });
    expect(mapped.code).toBe(ErrorCode.InvalidParameter);
    expect(mapped.status).toBe(400);
    expect(mapped.message).toContain('foo');
  });

  it('maps an enum violation to invalid_parameter listing the allowed values', () => {
    const mapped = mapError({
      validation: [
        {
          keyword: 'enum',
          instancePath: '/to',
          params: { allowedValues: ['USDC', 'USDT', 'USD'] },
          message: 'x',
        },
      ],
      validationContext: 'querystring',
    });
    expect(mapped.code).toBe(ErrorCode.InvalidParameter);
    expect(mapped.status).toBe(400);
    expect(mapped.message).toContain('to');
    expect(mapped.message).toContain('USDC, USDT, USD');
  });

  it('maps a body that is too large to payload_too_large 413', () => {
    const mapped = mapError({
      code: 'FST_ERR_CTP_BODY_TOO_LARGE',
      statusCode: 413,
      message: 'too big',
    });
    expect(mapped.code).toBe(ErrorCode.PayloadTooLarge);
    expect(mapped.status).toBe(413);
  });

  it('maps invalid JSON to invalid_parameter 400', () => {
    const mapped = mapError({ code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 });
    expect(mapped.code).toBe(ErrorCode.InvalidParameter);
    expect(mapped.status).toBe(400);
  });

  it('maps an unsupported media type (415) to invalid_parameter 400', () => {
    const mapped = mapError({ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 });
    expect(mapped.code).toBe(ErrorCode.InvalidParameter);
    expect(mapped.status).toBe(400);
  });

  it.each([['ECONNREFUSED'], ['ECONNRESET'], ['57P01']])(
    'maps a %s connection failure to service_unavailable 503',
    (code) => {
      const mapped = mapError(Object.assign(new Error('x'), { code }));
      expect(mapped.code).toBe(ErrorCode.ServiceUnavailable);
      expect(mapped.status).toBe(503);
      expect(mapped.unexpected).toBe(false);
    },
  );

  it('masks an unexpected error as internal_error 500', () => {
    const mapped = mapError(new Error('secret detail'));
    expect(mapped.code).toBe(ErrorCode.InternalError);
    expect(mapped.status).toBe(500);
    expect(mapped.unexpected).toBe(true);
    expect(mapped.message).not.toContain('secret detail');
    expect(mapped.details).toBeUndefined();
  });

  it.each([[null], [undefined], ['a string'], [42]])(
    'treats a thrown non-error %p as internal_error',
    (thrown) => {
      const mapped = mapError(thrown);
      expect(mapped.code).toBe(ErrorCode.InternalError);
      expect(mapped.status).toBe(500);
      expect(mapped.unexpected).toBe(true);
    },
  );
});
