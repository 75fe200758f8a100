// The predefined alert profiles every account has. They descend from the root <prefix>BASE_PROFILE
// (no alerts, may not be extended); their descriptionKeys name the placeholders templates may use.
// The prefix is the emulator's `predefinedPrefix` option: SVC_ by default, LW_ on the real service.

import type { PredefinedProfile } from './model.js';
import { PREDEFINED_PROFILE_PREFIX, ROOT_PROFILE_NAME } from './service-facts.js';

export type { PredefinedProfile } from './model.js';

const fields = (...names: string[]) => names.map((name) => ({ name }));
const keys = (...names: string[]) => names.map((name) => ({ name, spec: `{{${name}}}` }));

const COMMON_KEYS = ['_OCCURRENCE', '_POLICY_ID', '_POLICY_TITLE', '_PRIMARY_TAG'];

/** The profiles with ids after the prefix (`BASE_PROFILE`, ...); `extends` likewise. */
const UNPREFIXED: readonly PredefinedProfile[] = [
  {
    alertProfileId: ROOT_PROFILE_NAME,
    fields: fields('_OCCURRENCE', '_POLICY_ID', '_POLICY_TITLE', '_PRIMARY_TAG'),
    descriptionKeys: keys(...COMMON_KEYS),
    alerts: [],
  },
  {
    alertProfileId: 'HE_FILES_DEFAULT_PROFILE',
    extends: ROOT_PROFILE_NAME,
    fields: fields('_OCCURRENCE', '_POLICY_ID', '_POLICY_TITLE', '_PRIMARY_TAG', 'MID', 'PATH', 'FILE_TYPE', 'SIZE', 'HOSTNAME'),
    descriptionKeys: keys(...COMMON_KEYS, 'MID', 'PATH', 'FILE_TYPE', 'HOSTNAME'),
    alerts: [
      {
        name: 'HE_File_Violation',
        eventName: 'Host file policy violation',
        description: '{{_OCCURRENCE}}: file {{PATH}} on machine {{MID}} violates policy {{_POLICY_ID}}',
        subject: 'File {{PATH}} violates {{_POLICY_TITLE}}',
      },
      {
        name: 'HE_File_NewExecutable',
        eventName: 'New executable file',
        description: 'New executable {{PATH}} found on {{HOSTNAME}} ({{MID}})',
        subject: 'New executable {{PATH}}',
      },
    ],
  },
  {
    alertProfileId: 'HE_USER_DEFAULT_PROFILE',
    extends: ROOT_PROFILE_NAME,
    fields: fields('_OCCURRENCE', '_POLICY_ID', '_POLICY_TITLE', '_PRIMARY_TAG', 'MID', 'USERNAME', 'UID', 'SOURCE_IP'),
    descriptionKeys: keys(...COMMON_KEYS, 'MID', 'USERNAME', 'UID', 'SOURCE_IP'),
    alerts: [
      {
        name: 'HE_User_Violation',
        eventName: 'Host user policy violation',
        description: '{{_OCCURRENCE}}: user {{USERNAME}} on machine {{MID}} violates policy {{_POLICY_ID}}',
        subject: 'User {{USERNAME}} violates {{_POLICY_TITLE}}',
      },
    ],
  },
  {
    alertProfileId: 'CLOUD_ACTIVITY_DEFAULT_PROFILE',
    extends: ROOT_PROFILE_NAME,
    fields: fields('_OCCURRENCE', '_POLICY_ID', '_POLICY_TITLE', '_PRIMARY_TAG', 'RESOURCE_ID', 'EVENT_NAME', 'EVENT_SOURCE', 'REGION', 'ACCOUNT_ID'),
    descriptionKeys: keys(...COMMON_KEYS, 'RESOURCE_ID', 'EVENT_NAME', 'REGION', 'ACCOUNT_ID'),
    alerts: [
      {
        name: 'CloudActivityLog_Violation',
        eventName: 'Cloud activity policy violation',
        description: '{{_OCCURRENCE}}: {{EVENT_NAME}} on {{RESOURCE_ID}} in {{ACCOUNT_ID}} ({{REGION}})',
        subject: '{{_POLICY_TITLE}} on {{RESOURCE_ID}}',
      },
    ],
  },
  {
    alertProfileId: 'CFG_AWS_DEFAULT_PROFILE',
    extends: ROOT_PROFILE_NAME,
    fields: fields('_OCCURRENCE', '_POLICY_ID', '_POLICY_TITLE', '_PRIMARY_TAG', 'RESOURCE_ID', 'RESOURCE_TYPE', 'REGION', 'ACCOUNT_ID'),
    descriptionKeys: keys(...COMMON_KEYS, 'RESOURCE_ID', 'RESOURCE_TYPE', 'REGION', 'ACCOUNT_ID'),
    alerts: [
      {
        name: 'Compliance_Violation',
        eventName: 'Configuration compliance violation',
        description: '{{_OCCURRENCE}}: {{RESOURCE_TYPE}} {{RESOURCE_ID}} in {{ACCOUNT_ID}} fails {{_POLICY_ID}}',
        subject: '{{_POLICY_TITLE}}: {{RESOURCE_ID}}',
      },
    ],
  },
];

/** The predefined profiles of an account whose vendor prefix is `prefix`. */
export function predefinedProfiles(prefix: string): readonly PredefinedProfile[] {
  return UNPREFIXED.map((p) => ({
    ...structuredClone(p),
    alertProfileId: prefix + p.alertProfileId,
    ...(p.extends !== undefined ? { extends: prefix + p.extends } : {}),
  }));
}

/** With the default prefix (SVC_). */
export const PREDEFINED_PROFILES: readonly PredefinedProfile[] = predefinedProfiles(PREDEFINED_PROFILE_PREFIX);
