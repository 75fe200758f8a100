// Credential shapes that several integration kinds share in their `data` schemas (api-facts.md).

import { formatted, obj, str, type SchemaObject } from './schema-parts.js';

/** A GCP service account key; the public clients treat `privateKeyId` as optional. */
export const gcpCredentials = (what: string): SchemaObject =>
  obj(
    `Service account key of ${what} (from its JSON key file).`,
    {
      clientEmail: str('Service account e-mail.', { example: 'postureops@my-project.iam.gserviceaccount.com' }),
      clientId: str('Service account client id.', { example: '123456789012345678901' }),
      privateKey: str('PEM private key of the service account.', { example: '${env:GCP_PRIVATE_KEY}' }),
      privateKeyId: str('Id of the private key (optional).', { example: '${env:GCP_PRIVATE_KEY_ID}' }),
    },
    ['clientEmail', 'clientId', 'privateKey'],
  );

export const crossAccount = (): SchemaObject =>
  obj(
    'IAM role the service assumes in your AWS account.',
    {
      roleArn: formatted('ARN of the role (any partition: aws, aws-us-gov, aws-cn).', 'arn', { example: 'arn:aws:iam::123456789012:role/posture-audit' }),
      externalId: str('External id the role trust policy requires.', { example: 'posture-7f3c2a' }),
    },
    ['roleArn', 'externalId'],
  );

export const accessKey = (): SchemaObject =>
  obj(
    'Access key of an IAM user.',
    {
      accessKeyId: str('Access key id.', { example: 'AKIAIOSFODNN7EXAMPLE' }),
      secretAccessKey: str('Secret access key.', { example: '${env:AWS_SECRET_ACCESS_KEY}' }),
    },
    ['accessKeyId', 'secretAccessKey'],
  );
