/** The package registry's JSON routes (GitLab's `lib/api/project_packages.rb`, `group_packages.rb`, `package_files.rb`). */
import type { RestRoute } from '../../rest/route.js';

const packages = '/projects/:id/packages';
const pkg = `${packages}/:package_id`;

export const packageRoutes: RestRoute[] = [
  { method: 'GET', path: packages, operation: 'RestListProjectPackages', paginate: true },
  { method: 'GET', path: '/groups/:id/packages', operation: 'RestListGroupPackages', paginate: true },
  { method: 'GET', path: pkg, operation: 'RestGetProjectPackage' },
  { method: 'GET', path: `${pkg}/package_files`, operation: 'RestListPackageFiles', paginate: true },
  { method: 'GET', path: `${pkg}/pipelines`, operation: 'RestListPackagePipelines', paginate: true },
  { method: 'DELETE', path: pkg, operation: 'RestDeleteProjectPackage', result: 'destroyPackage.package', status: 204 },
  { method: 'DELETE', path: `${pkg}/package_files/:package_file_id`, operation: 'RestDeletePackageFile', result: 'destroyPackageFile.packageFile', status: 204 },
];
