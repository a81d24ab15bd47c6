import { expect, test } from '@playwright/test';

test('products when the API misbehaves', async ({ page }) => {
  await page.route('**/api/cart', (route) => route.fulfill({ status: 401, json: { error: 'sign in first' } }));
  await page.goto('/products');
  await page.getByTestId('product-1').getByRole('button', { name: 'Add to cart' }).click();
  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByRole('heading')).toHaveText('Sign in');
  await page.unrouteAll();
  await page.getByLabel('Email').fill('grace@shop.test');
  await page.getByLabel('Password').fill('wrong');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('Wrong email or password');
  const products = await page.request.get('/api/products');
  expect(products.status()).toBe(200);
  expect(products.headers()['content-type']).toContain('json');
  expect((await products.json()).products[0].name).toBe('Espresso cup');
});
