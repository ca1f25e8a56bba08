/** GitLab's composition of a pipeline's status from its jobs' (Gitlab::Ci::Status::Composite), rule by rule. */
import { describe, expect, it } from 'vitest';
import { compositeStatus, hasWarnings, pipelineDetailedStatus, jobDetailedStatus } from '../../src/modules/pipelines/status.js';

const jobs = (...specs: string[]) =>
  specs.map((spec) => {
    const [status, flag] = spec.split(':');
    return { status, allowFailure: flag === 'allowed' };
  });

describe('compositeStatus', () => {
  it.each([
    [[], null],
    [['skipped'], 'skipped'],
    [['manual:allowed', 'skipped'], 'skipped'],
    [['success', 'skipped'], 'success'],
    [['success', 'failed:allowed'], 'success'],
    [['success', 'canceled:allowed', 'manual:allowed'], 'success'],
    [['created', 'created'], 'created'],
    [['created', 'failed:allowed'], 'created'],
    [['preparing'], 'preparing'],
    [['canceled', 'success'], 'canceled'],
    [['pending', 'created'], 'pending'],
    [['pending', 'skipped'], 'pending'],
    [['running', 'success'], 'running'],
    [['pending', 'success'], 'running'],
    [['failed', 'running'], 'running'],
    [['waiting_for_resource', 'success'], 'waiting_for_resource'],
    [['waiting_for_callback', 'success'], 'waiting_for_callback'],
    [['manual', 'success'], 'manual'],
    [['scheduled', 'success'], 'scheduled'],
    [['preparing', 'success'], 'preparing'],
    [['created', 'success'], 'running'],
    [['canceling', 'success'], 'canceling'],
    [['failed', 'success'], 'failed'],
    [['failed', 'canceled'], 'failed'],
  ])('%j → %s', (specs, expected) => {
    expect(compositeStatus(jobs(...(specs as string[])))).toBe(expected);
  });

  it('makes any skipped or ignored need skip a DAG job', () => {
    expect(compositeStatus(jobs('success', 'skipped'), { dag: true })).toBe('skipped');
    expect(compositeStatus(jobs('success', 'manual:allowed'), { dag: true })).toBe('skipped');
    expect(compositeStatus(jobs('success', 'failed:allowed'), { dag: true })).toBe('success');
  });

  it('reports warnings for allowed failures only', () => {
    expect(hasWarnings(jobs('success', 'failed:allowed'))).toBe(true);
    expect(hasWarnings(jobs('success', 'manual:allowed'))).toBe(false);
  });
});

describe('detailed statuses', () => {
  it('words a pipeline status as GitLab does', () => {
    expect(pipelineDetailedStatus('running', false, '/g/p/-/pipelines/1')).toEqual({
      icon: 'status_running',
      text: 'Running',
      label: 'running',
      group: 'running',
      tooltip: 'running',
      hasDetails: true,
      detailsPath: '/g/p/-/pipelines/1',
      illustration: null,
      favicon: '/assets/ci_favicons/favicon_status_running.png',
    });
    expect(pipelineDetailedStatus('success', true, null)).toMatchObject({ icon: 'status_warning', label: 'passed with warnings', group: 'success_with_warnings', hasDetails: false });
    expect(pipelineDetailedStatus('manual', false, null)).toMatchObject({ text: 'Blocked', label: 'waiting for manual action', group: 'manual' });
    expect(pipelineDetailedStatus('scheduled', false, null)).toMatchObject({ text: 'Delayed', label: 'waiting for delayed job', group: 'scheduled' });
  });

  it('words a job that failed but may fail as a warning', () => {
    expect(jobDetailedStatus({ status: 'failed', allowFailure: true }, null)).toMatchObject({ icon: 'status_warning', group: 'failed_with_warnings' });
    expect(jobDetailedStatus({ status: 'manual', allowFailure: true }, null)).toMatchObject({ label: 'manual play action', group: 'manual' });
  });
});
