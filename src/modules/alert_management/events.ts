/** The bus topic of new and changed alerts, which alertManagementAlertUpdated hears; its own file, so the issues service's seam (incidents.ts) loads no more of this module. */
export const ALERT_CHANGED = 'alert_management.alert_changed';
export interface AlertChangedMessage {
  projectId: number;
  alertId: number;
  iid: number;
  created: boolean;
}
