/**
 * What a job's minutes cost (GitLab EE's Gitlab::Ci::Minutes::CostFactor and BuildConsumption): only jobs an instance
 * runner ran count; a minute of a public project's job costs the runner's public cost factor, of a private or internal
 * one its private cost factor; a factor of 0 counts nothing. Pure.
 */

export interface CostedRunner {
  runnerType: string;
  publicProjectsMinutesCostFactor: number;
  privateProjectsMinutesCostFactor: number;
}

/** The runner's cost factor for a project of this visibility; 0 for runners that are not the instance's. */
export function costFactor(runner: CostedRunner, visibility: string): number {
  if (runner.runnerType !== 'instance_type') return 0;
  return visibility === 'public' ? runner.publicProjectsMinutesCostFactor : runner.privateProjectsMinutesCostFactor;
}

/** Compute minutes a job of `durationSeconds` costs at `factor`, rounded to hundredths as GitLab stores them. */
export function consumption(durationSeconds: number, factor: number): number {
  return Math.round((durationSeconds / 60) * factor * 100) / 100;
}

/** The first day (UTC) of the month an instant falls in: the month a usage row counts for. */
export function monthOf(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** The month's English name, as GitLab's `month` field gives it (`date.strftime('%B')`). */
export function monthName(date: Date): string {
  return date.toLocaleString('en-US', { month: 'long', timeZone: 'UTC' });
}
