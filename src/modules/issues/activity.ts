/**
 * Who sees an issue's activity events (GitLab's Event#visible_to_user? asks `read_issue` of the issue): its
 * readers, so a confidential issue's opening and closing reach only those who may read it.
 */
import { registerEventTarget } from '../activity/targets.js';
import { ISSUE } from './service.js';

registerEventTarget([ISSUE], { readableTargets: (services, ids) => services.issues.readableIds(ids) });
