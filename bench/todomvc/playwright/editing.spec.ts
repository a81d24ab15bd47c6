import { expect, test } from '@playwright/test';
import { addTodos } from './todos.js';

test('editing', async ({ page }) => {
  await page.goto('/');
  await addTodos(page);
  await page.getByTestId('todo-title').nth(1).dblclick();
  await expect(page.getByRole('checkbox')).toHaveCount(3);
  await page.getByRole('textbox', { name: 'Edit' }).fill('  buy some sausages  ');
  await page.getByRole('textbox', { name: 'Edit' }).press('Enter');
  await expect(page.getByTestId('todo-title')).toHaveText(['buy some cheese', 'buy some sausages', 'book a doctors appointment']);
});
