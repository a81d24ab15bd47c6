import { expect, test } from '@playwright/test';
import { addTodos } from './todos.js';

test('mark all as completed', async ({ page }) => {
  await page.goto('/');
  await addTodos(page);
  await page.getByLabel('Mark all as complete').check();
  await expect(page.getByTestId('todo-item')).toHaveClass(['completed', 'completed', 'completed']);
  await expect(page.getByTestId('todo-count')).toHaveText('0 items left');
  await page.getByLabel('Mark all as complete').uncheck();
  await expect(page.getByTestId('todo-item')).toHaveClass(['', '', '']);
});
