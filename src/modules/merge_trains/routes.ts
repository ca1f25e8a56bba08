/** The Merge Trains API (EE's `lib/api/merge_trains.rb`, whose endpoints all `authenticate!`). */
import type { RestRoute } from '../../rest/route.js';

const trains = '/projects/:id/merge_trains';

export const mergeTrainRoutes: RestRoute[] = [
  { method: 'GET', path: trains, operation: 'RestListMergeTrains', result: 'project.mergeTrainCars', paginate: true, notFound: 'Project', authenticate: true },
  { method: 'GET', path: `${trains}/:target_branch`, operation: 'RestListMergeTrains', result: 'project.mergeTrainCars', paginate: true, notFound: 'Project', authenticate: true },
  { method: 'GET', path: `${trains}/merge_requests/:merge_request_iid`, operation: 'RestGetMergeTrainCar', result: 'project.mergeTrainCar', notFound: 'Merge Train', authenticate: true },
  // 201 when the merge request boarded, 202 when it boards once its pipeline succeeds; the train's active cars either way.
  { method: 'POST', path: `${trains}/merge_requests/:merge_request_iid`, operation: 'RestAddMergeRequestToMergeTrain', result: 'mergeTrainsAddMergeRequest.cars', statusFrom: 'mergeTrainsAddMergeRequest.status' },
];
