/**
 * To-do items (GitLab's Todo): the To-Do List API (with the issue, merge request and epic `…/todo` routes),
 * `currentUser.todos` and the todo mutations (alertTodoCreate too), made as GitLab's TodoService makes them when
 * issues and epics are created, assigned, closed and mentioned in notes.
 */
import { defineModule } from '../module.js';
import { todosResolvers } from './resolvers.js';
import { todosRoutes } from './routes.js';
import { TodosService } from './service.js';

declare module '../module.js' {
  interface Services {
    todos: TodosService;
  }
}

export const todosModule = defineModule({
  name: 'todos',
  schema: ['todos.graphql'],
  operations: ['todos.graphql'],
  resolvers: todosResolvers,
  routes: todosRoutes,
  uses: [],
  service: (base) => new TodosService(base),
});
