/**
 * GitLab's job artifact file types and their formats (Ci::JobArtifact): the internal ones (archive, metadata,
 * trace) and every report type, each with the one format it is uploaded in (TYPE_AND_FORMAT_PAIRS) and the name
 * the runner is told to upload it under (DEFAULT_FILE_NAMES).
 */

/** Ci::JobArtifact::TYPE_AND_FORMAT_PAIRS: INTERNAL_TYPES, then REPORT_FILE_TYPES, in Enums::Ci::JobArtifact's order. */
export const TYPE_AND_FORMAT: Readonly<Record<string, 'zip' | 'gzip' | 'raw'>> = {
  archive: 'zip',
  metadata: 'gzip',
  trace: 'raw',
  junit: 'gzip',
  // Security and license reports are raw: the frontend once fetched them as they are.
  sast: 'raw',
  dependency_scanning: 'raw',
  container_scanning: 'raw',
  dast: 'raw',
  // Raw too: kept uncompressed for the frontend to read.
  codequality: 'raw',
  license_scanning: 'raw',
  performance: 'raw',
  metrics: 'gzip',
  metrics_referee: 'gzip',
  network_referee: 'gzip',
  lsif: 'zip',
  dotenv: 'gzip',
  cobertura: 'gzip',
  terraform: 'raw',
  accessibility: 'raw',
  cluster_applications: 'gzip',
  secret_detection: 'raw',
  requirements: 'raw',
  coverage_fuzzing: 'raw',
  browser_performance: 'raw',
  load_performance: 'raw',
  api_fuzzing: 'raw',
  cluster_image_scanning: 'raw',
  cyclonedx: 'gzip',
  requirements_v2: 'raw',
  annotations: 'gzip',
  repository_xray: 'gzip',
  jacoco: 'gzip',
};

/** Ci::JobArtifact::DEFAULT_FILE_NAMES of the report types: the `name` each report entry of a job payload carries. */
export const REPORT_FILE_NAMES: Readonly<Record<string, string>> = {
  junit: 'junit.xml',
  accessibility: 'gl-accessibility.json',
  codequality: 'gl-code-quality-report.json',
  sast: 'gl-sast-report.json',
  secret_detection: 'gl-secret-detection-report.json',
  dependency_scanning: 'gl-dependency-scanning-report.json',
  container_scanning: 'gl-container-scanning-report.json',
  cluster_image_scanning: 'gl-cluster-image-scanning-report.json',
  dast: 'gl-dast-report.json',
  license_scanning: 'gl-license-scanning-report.json',
  performance: 'performance.json',
  browser_performance: 'browser-performance.json',
  load_performance: 'load-performance.json',
  metrics: 'metrics.txt',
  lsif: 'lsif.json',
  dotenv: '.env',
  cobertura: 'cobertura-coverage.xml',
  jacoco: 'jacoco-coverage.xml',
  terraform: 'tfplan.json',
  cluster_applications: 'gl-cluster-applications.json',
  requirements: 'requirements.json',
  requirements_v2: 'requirements_v2.json',
  coverage_fuzzing: 'gl-coverage-fuzzing.json',
  api_fuzzing: 'gl-api-fuzzing-report.json',
  cyclonedx: 'gl-sbom.cdx.json',
  annotations: 'gl-annotations.json',
  repository_xray: 'gl-repository-xray.json',
};

/** GitLab's artifact file types (Enums::Ci::JobArtifact.file_type). */
export const ARTIFACT_TYPES = Object.keys(TYPE_AND_FORMAT);
export const ARTIFACT_FORMATS = ['zip', 'gzip', 'raw'] as const;
