/** Pipeline schedules: pipelines of a ref created as the schedule's owner whenever its cron falls due. */
import { defineModule } from '../module.js';
import { pipelineScheduleJobs } from './jobs.js';
import { createPipelineScheduleLoaders, type PipelineScheduleLoaders } from './loaders.js';
import { pipelineScheduleResolvers } from './resolvers.js';
import { pipelineScheduleRoutes } from './routes.js';
import { PipelineSchedulesService } from './service.js';
import { pipelineSchedulePolicy } from './policy.js';

declare module '../module.js' {
  interface Services {
    pipeline_schedules: PipelineSchedulesService;
  }
  interface Loaders {
    pipeline_schedules: PipelineScheduleLoaders;
  }
}

export const pipelineSchedulesModule = defineModule({
  name: 'pipeline_schedules',
  schema: ['pipeline_schedules.graphql'],
  operations: ['pipeline_schedules.graphql'],
  resolvers: pipelineScheduleResolvers,
  policy: pipelineSchedulePolicy,
  routes: pipelineScheduleRoutes,
  loaders: (db) => createPipelineScheduleLoaders(db),
  uses: ['repositories', 'pipelines'],
  service: (base, uses) => new PipelineSchedulesService(base, uses.repositories, uses.pipelines),
  jobs: pipelineScheduleJobs,
});
