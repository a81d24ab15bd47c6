import { expect, test } from '@playwright/test';
import { TODO_ITEMS, addTodos } from './todos.js';

test('routing: completed items, then all', async ({ page }) => {
  await page.goto('/');
  await addTodos(page);
  await page.getByTestId('todo-item').nth(1).getByRole('checkbox').check();
  await page.getByRole('link', { name: 'Completed' }).click();
  await expect(page.getByTestId('todo-title')).toHaveText([TODO_ITEMS[1]]);
  await page.getByRole('link', { name: 'All' }).click();
  await expect(page.getByTestId('todo-item')).toHaveCount(3);
  await expect(page.getByRole('link', { name: 'All' })).toHaveClass('selected');
});
