import { expect, test } from '@playwright/test';
import { addTodos } from './todos.js';

test('item', async ({ page }) => {
  await page.goto('/');
  await addTodos(page);
  const second = page.getByTestId('todo-item').nth(1);
  await second.getByRole('checkbox').check();
  await expect(second).toHaveClass('completed');
  await expect(page.getByTestId('todo-count')).toHaveText('2 items left');
  await second.getByRole('checkbox').uncheck();
  await expect(second).not.toHaveClass('completed');
  await second.hover();
  await second.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByTestId('todo-title')).toHaveText(['buy some cheese', 'book a doctors appointment']);
});
