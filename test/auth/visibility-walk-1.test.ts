// Shard 1 of the visibility walk (test/auth/visibility-walk.ts).
import { visibilityWalk } from './visibility-walk.js';

visibilityWalk(0);
