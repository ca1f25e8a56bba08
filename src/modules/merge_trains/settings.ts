/**
 * Whether a project runs merge trains (EE's ProjectCiCdSetting#merge_trains_enabled?): set, and merged results
 * pipelines enabled too, since each car's pipeline is a merged result; and whether a merge may skip the train
 * (merge_trains_skip_train_allowed?, only where trains run).
 */
export interface MergeTrainSettings {
  mergePipelinesEnabled: boolean;
  mergeTrainsEnabled: boolean;
  mergeTrainsSkipTrainAllowed: boolean;
}

export function mergeTrainsEnabled(project: MergeTrainSettings): boolean {
  return project.mergeTrainsEnabled && project.mergePipelinesEnabled;
}

export function mergeTrainsSkipTrainAllowed(project: MergeTrainSettings): boolean {
  return project.mergeTrainsSkipTrainAllowed && mergeTrainsEnabled(project);
}
