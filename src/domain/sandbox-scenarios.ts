export type FxFailureScenario = 'NONE' | 'TEMPORARY' | 'PERMANENT';
