// Shard 1 of the scope matrix (test/auth/scope-matrix.ts).
import { scopeMatrix } from './scope-matrix.js';

scopeMatrix(0);
