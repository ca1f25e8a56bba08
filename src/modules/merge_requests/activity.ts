/** Who sees a merge request's activity events (GitLab's Event#visible_to_user? asks `read_merge_request`): its readers. */
import { registerEventTarget } from '../activity/targets.js';
import { MERGE_REQUEST } from './service.js';

registerEventTarget([MERGE_REQUEST], {
  async visible(services, events) {
    const readable = await services.merge_requests.readableIds([...new Set(events.map((e) => e.targetId!))]);
    return new Set(events.filter((e) => readable.has(e.targetId!)).map((e) => e.id));
  },
});
