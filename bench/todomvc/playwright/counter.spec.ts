import { expect, test } from '@playwright/test';
import { TODO_ITEMS, addTodos } from './todos.js';

test('counter', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('todo-count')).toBeHidden();
  await addTodos(page, [TODO_ITEMS[0]]);
  await expect(page.getByTestId('todo-count')).toHaveText('1 item left');
  await addTodos(page, [TODO_ITEMS[1]]);
  await expect(page.getByTestId('todo-count')).toHaveText('2 items left');
});
