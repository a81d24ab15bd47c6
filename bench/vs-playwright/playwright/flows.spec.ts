// The same flow as each bcs scenario the benchmark writes: goto, expect text, click, expect text.
import { expect, test } from '@playwright/test';

const count = Number(process.env.BENCH_FLOWS ?? 20);
for (let i = 1; i <= count; i++) {
  test(`flow ${i}`, async ({ page }) => {
    await page.goto(`${process.env.BENCH_URL}/index.html`);
    await expect(page.getByText('Welcome')).toBeVisible();
    await page.getByRole('button', { name: 'Go' }).click();
    await expect(page.getByText('Clicked')).toBeVisible();
  });
}
