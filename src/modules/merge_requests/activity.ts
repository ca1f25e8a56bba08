/** Who sees a merge request's activity events (GitLab's Event#visible_to_user? asks `read_merge_request`): its readers. */
import { registerEventTarget } from '../activity/targets.js';
import { MERGE_REQUEST } from './service.js';

registerEventTarget([MERGE_REQUEST], { readableTargets: (services, ids) => services.merge_requests.readableIds(ids) });
