import { expect, test } from '@playwright/test';
import { TODO_ITEMS, addTodos } from './todos.js';

test('routing: active items', async ({ page }) => {
  await page.goto('/');
  await addTodos(page);
  await page.getByTestId('todo-item').nth(1).getByRole('checkbox').check();
  await page.getByRole('link', { name: 'Active' }).click();
  await expect(page).toHaveURL(/#\/active$/);
  await expect(page.getByTestId('todo-title')).toHaveText([TODO_ITEMS[0], TODO_ITEMS[2]]);
  await expect(page.getByRole('link', { name: 'Active' })).toHaveClass('selected');
});
