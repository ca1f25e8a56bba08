/**
 * GitLab's To-Do List API (`lib/api/todos.rb`): the caller's list, marking done, and adding one about an issue or a
 * merge request; and the Epics API's `POST /groups/:id/epics/:epic_iid/todo` (`ee/lib/api/epics.rb`).
 */
import type { RestRoute } from '../../rest/route.js';

export const todosRoutes: RestRoute[] = [
  { method: 'GET', path: '/todos', operation: 'RestListTodos', result: 'currentUser.todos', paginate: true, authenticate: true },
  { method: 'POST', path: '/todos/mark_as_done', operation: 'RestMarkAllTodosDone', result: 'todosMarkAllDone', status: 204, authenticate: true },
  { method: 'POST', path: '/todos/:id/mark_as_done', operation: 'RestMarkTodoDone', result: 'todoMarkDone.todo', status: 201, authenticate: true },
  { method: 'POST', path: '/projects/:id/issues/:issue_iid/todo', operation: 'RestCreateIssueTodo', result: 'issueTodoCreate.todo', authenticate: true },
  { method: 'POST', path: '/projects/:id/merge_requests/:merge_request_iid/todo', operation: 'RestCreateMergeRequestTodo', result: 'mergeRequestTodoCreate.todo', authenticate: true },
  { method: 'POST', path: '/groups/:id/epics/:epic_iid/todo', operation: 'RestCreateEpicTodo', result: 'epicTodoCreate.todo', authenticate: true },
];
