import { expect, test } from '@playwright/test';
import { TODO_ITEMS, addTodos } from './todos.js';

test('new todo', async ({ page }) => {
  await page.goto('/');
  await addTodos(page, [TODO_ITEMS[0]]);
  await expect(page.getByTestId('todo-title')).toHaveText([TODO_ITEMS[0]]);
  await expect(page.getByPlaceholder('What needs to be done?')).toBeEmpty();
  await addTodos(page, [TODO_ITEMS[1]]);
  await expect(page.getByTestId('todo-title')).toHaveText([TODO_ITEMS[0], TODO_ITEMS[1]]);
});
