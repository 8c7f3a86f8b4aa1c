import { customerText } from '../../dashboard/src/customer-text';

describe("the dashboard's customer text", () => {
  it('shows last 4 digits and which details were given, never more', () => {
    expect(customerText(null)).toBe('—');
    expect(
      customerText({
        fields: ['FIRST_NAME', 'LAST_NAME', 'PHONE', 'BVN', 'NIN'],
        bvnLast4: '5678',
        ninLast4: '6789',
      }),
    ).toBe('BVN ••••5678 · NIN ••••6789 · first name, last name, phone');
    expect(customerText({ fields: ['PHONE'], bvnLast4: null, ninLast4: null })).toBe('phone');
  });
});
