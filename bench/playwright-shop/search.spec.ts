import { expect, test } from '@playwright/test';

const rows = [
  { term: 'kettle', shown: '1 product' },
  { term: 'PAPER', shown: '1 product' },
  { term: 'cup', shown: '1 product' },
  { term: 'tea', shown: '0 products' },
];

for (const { term, shown } of rows) {
  test(`search for ${term}`, async ({ page }) => {
    await page.goto('/products');
    await page.getByLabel('Search').fill(term);
    await expect(page.getByRole('status')).toHaveText(shown);
  });
}
