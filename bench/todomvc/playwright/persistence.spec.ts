import { expect, test } from '@playwright/test';
import { TODO_ITEMS, addTodos } from './todos.js';

test('persistence', async ({ page }) => {
  await page.goto('/');
  await addTodos(page);
  await page.getByTestId('todo-item').nth(0).getByRole('checkbox').check();
  await page.reload();
  await expect(page.getByTestId('todo-title')).toHaveText(TODO_ITEMS);
  await expect(page.getByTestId('todo-item').nth(0)).toHaveClass('completed');
  await expect(page.getByTestId('todo-item').nth(0).getByRole('checkbox')).toBeChecked();
});
