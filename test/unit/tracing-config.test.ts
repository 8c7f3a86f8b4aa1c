import { loadConfig } from '../../src/config';
import { tracesUrl } from '../../src/config-observability';

/** When tracing is on and where spans go, from OpenTelemetry's standard variables. */
describe('tracing configuration', () => {
  const url = (env: Record<string, string>) => tracesUrl(loadConfig(env));

  it('is off by default', () => {
    expect(url({})).toBeNull();
  });

  it('appends /v1/traces to the base endpoint; the traces endpoint is used as is', () => {
    expect(url({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(url({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(
      url({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/otlp/spans',
      }),
    ).toBe('https://traces.example.com/otlp/spans');
  });

  it('OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn it off again', () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(url({ ...on, OTEL_SDK_DISABLED: 'true' })).toBeNull();
    expect(url({ ...on, OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
    expect(url({ ...on, OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp' })).not.toBeNull();
  });

  it('refuses a transport it does not have, and a bad endpoint, naming the variable', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL/,
    );
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).OTEL_EXPORTER_OTLP_PROTOCOL,
    ).toBe('http/json');
  });

  it('PAYOUT_STUCK_ALERT_SECONDS and METRICS_CACHE_SECONDS: defaults, and bad values refused', () => {
    const config = loadConfig({});
    expect(config.PAYOUT_STUCK_ALERT_SECONDS).toBe(1800);
    expect(config.METRICS_CACHE_SECONDS).toBe(5);
    expect(() => loadConfig({ PAYOUT_STUCK_ALERT_SECONDS: '0' })).toThrow(
      /PAYOUT_STUCK_ALERT_SECONDS/,
    );
    expect(() => loadConfig({ METRICS_CACHE_SECONDS: '-1' })).toThrow(/METRICS_CACHE_SECONDS/);
  });
});
