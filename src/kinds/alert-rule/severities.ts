// Severities of alert rules: the service's integers and their names in configuration files.

export const SEVERITIES = { critical: 1, high: 2, medium: 3, low: 4, info: 5 } as const;
export type SeverityName = keyof typeof SEVERITIES;
