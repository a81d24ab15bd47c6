import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';

test('fill and export the cart', async ({ page }) => {
  const login = await page.request.post('/login', { form: { email: 'ada@shop.test', password: 'espresso' } });
  expect(login.status()).toBe(200);
  await page.goto('/products');
  await expect(page.getByText('ada@shop.test')).toBeVisible();
  const first = page.waitForResponse((r) => r.url().endsWith('/api/cart') && r.request().method() === 'POST');
  await page.getByTestId('product-2').getByRole('button', { name: 'Add to cart' }).click();
  expect((await (await first).json()).count).toBe(1);
  const second = page.waitForResponse((r) => r.url().endsWith('/api/cart') && r.request().method() === 'POST');
  await page.getByTestId('product-4').getByRole('button', { name: 'Add to cart' }).click();
  await second;
  await expect(page.getByRole('link', { name: 'Cart (2)' })).toBeVisible();
  const cart = await (await page.request.get('/api/cart')).json();
  expect(cart.count).toBe(2);
  expect(cart.lines[1].name).toBe('Paper filters');
  await page.goto('/cart');
  await expect(page.getByTestId('total')).toHaveText('Total: $47');
  page.once('dialog', async (dialog) => {
    expect(dialog.message()).toBe('Remove this item?');
    await dialog.accept();
  });
  await page.getByTestId('line-4').getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByTestId('total')).toHaveText('Total: $42');
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Export CSV' }).click();
  const csv = await readFile(await (await download).path(), 'utf8');
  expect(csv).toContain('Pour-over kettle,1,42');
  expect(csv).toMatch(/^product,quantity,price\n/);
});
