import { expect, test } from '@playwright/test';
import { TODO_ITEMS, addTodos } from './todos.js';

test('clear completed', async ({ page }) => {
  await page.goto('/');
  await addTodos(page);
  await expect(page.getByRole('button', { name: 'Clear completed' })).toBeHidden();
  await page.getByTestId('todo-item').nth(1).getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Clear completed' }).click();
  await expect(page.getByTestId('todo-title')).toHaveText([TODO_ITEMS[0], TODO_ITEMS[2]]);
  await expect(page.getByRole('button', { name: 'Clear completed' })).toBeHidden();
});
