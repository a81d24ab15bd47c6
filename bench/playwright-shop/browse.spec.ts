import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';

test('browse the shop', async ({ page, context }) => {
  await page.goto('/');
  await expect(page.getByRole('navigation', { name: 'Main' })).toMatchAriaSnapshot(`
    - navigation "Main":
      - link "Home"
      - link "Products"
      - link /Cart \\(\\d+\\)/
  `);
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
  await expect(page.getByTestId('logo')).toHaveScreenshot('logo.png', { maxDiffPixels: 20 });
  await page.getByRole('link', { name: 'See the products' }).click();
  await expect(page).toHaveURL(/\/products/);
  await expect(page.getByRole('listitem')).toHaveCount(4);
  await page.getByLabel('Search').pressSequentially('coffee');
  await expect(page.getByRole('status')).toHaveText('1 product');
  await expect(page.getByTestId('product-3')).toContainText('Coffee grinder');
  await expect(page.getByTestId('product-3')).toBeVisible();
  await expect(page.getByTestId('product-1')).toBeHidden();
  const popup = context.waitForEvent('page');
  await page.getByRole('link', { name: 'Help' }).click();
  const help = await popup;
  await expect(help.getByRole('heading')).toHaveText('Help');
  await help.close();
  await expect(page).toHaveTitle(/Products/);
});
