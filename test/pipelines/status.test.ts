/** GitLab's composition of a pipeline's status from its jobs' (Gitlab::Ci::Status::Composite), rule by rule. */
import { describe, expect, it } from 'vitest';
import { compositeStatus, hasWarnings, jobDetailedStatus, jobStatusAction, pipelineDetailedStatus, type ActionJob } from '../../src/modules/pipelines/status.js';

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

const job = (status: string, over: Partial<ActionJob> = {}): ActionJob => ({ id: 7, status, allowFailure: false, type: 'build', when: 'on_success', retried: false, options: {}, ...over });

describe('detailed statuses', () => {
  it('words a pipeline status as GitLab does', () => {
    expect(pipelineDetailedStatus('running', false, '/g/p/-/pipelines/1', 1)).toEqual({
      id: 'running-1',
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
    expect(pipelineDetailedStatus('success', true, null, 1)).toMatchObject({ icon: 'status_warning', label: 'passed with warnings', group: 'success_with_warnings', hasDetails: false });
    expect(pipelineDetailedStatus('manual', false, null, 1)).toMatchObject({ text: 'Blocked', label: 'waiting for manual action', group: 'manual' });
    expect(pipelineDetailedStatus('scheduled', false, null, 1)).toMatchObject({ text: 'Delayed', label: 'waiting for delayed job', group: 'scheduled' });
  });

  it('words a job that failed but may fail as a warning', () => {
    expect(jobDetailedStatus(job('failed', { allowFailure: true }), null)).toMatchObject({ id: 'failed-7', icon: 'status_warning', group: 'failed_with_warnings' });
    expect(jobDetailedStatus(job('manual', { allowFailure: true, when: 'manual' }), null)).toMatchObject({ label: 'manual play action', group: 'manual' });
  });

  it("offers a job's action as GitLab's Build factory does, the later decorator winning", () => {
    const act = (j: ActionJob, may = true) => jobStatusAction(j, '/g/p/-/jobs/7', { updateBuild: may, play: may });
    expect(act(job('running'))).toEqual({ id: 'Ci::Build-7', icon: 'cancel', title: 'Cancel', buttonTitle: 'Cancel this job', path: '/g/p/-/jobs/7/cancel', method: 'post', confirmationMessage: null });
    expect(act(job('created'))?.title).toBe('Cancel');
    expect(act(job('failed'))).toMatchObject({ icon: 'retry', title: 'Run again', buttonTitle: 'Run this job again', path: '/g/p/-/jobs/7/retry' });
    expect(act(job('failed', { retried: true }))).toBeNull();
    expect(act(job('skipped'))).toBeNull();
    // A manual job: played; once finished, played again (Play outranks Retryable); its confirmation asked first.
    const manual = job('manual', { when: 'manual', options: { manual_confirmation: 'Deploy to production?' } });
    expect(act(manual)).toMatchObject({ icon: 'play', title: 'Run', buttonTitle: 'Run job', path: '/g/p/-/jobs/7/play', confirmationMessage: 'Deploy to production?' });
    expect(act({ ...manual, status: 'success' })).toMatchObject({ title: 'Run', confirmationMessage: 'Deploy to production?' });
    expect(act(job('scheduled', { when: 'delayed' }))).toMatchObject({ icon: 'time-out', title: 'Unschedule', buttonTitle: 'Unschedule job', path: '/g/p/-/jobs/7/unschedule' });
    expect(act(job('manual', { when: 'manual', options: { environment: { name: 'review', action: 'stop' } } }))).toMatchObject({ icon: 'stop', title: 'Stop', buttonTitle: 'Stop this environment', path: '/g/p/-/jobs/7/play' });
    // None for whoever may not update the job.
    expect(act(manual, false)).toBeNull();
  });

  it("offers a bridge's action as GitLab's Bridge factory does: Play while it waits to be played, to whoever may play it", () => {
    const act = (j: ActionJob, play = true) => jobStatusAction(j, '/g/p/-/jobs/7', { updateBuild: true, play });
    const manual = job('manual', { type: 'bridge', when: 'manual' });
    expect(act(manual)).toEqual({ id: 'Ci::Bridge-7', icon: 'play', title: 'Run', buttonTitle: 'Run job', path: '/g/p/-/jobs/7/play', method: 'post', confirmationMessage: null });
    expect(act(manual, false)).toBeNull();
    // A bridge is neither retried nor canceled through its status.
    expect(act(job('failed', { type: 'bridge' }))).toBeNull();
    expect(act(job('running', { type: 'bridge' }))).toBeNull();
    expect(act({ ...manual, status: 'success' })).toBeNull();
  });
});
