// The placeholder `export --dotenv-out` writes for a value the service never returns stands for a
// value still to be set: validate does not hold its shape against it; a wrong real value still fails.

import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { WRITE_ONLY_PLACEHOLDER } from '../../src/model/env-markers.js';
import { codes, errorsOf, makeRepo, ROOT_TWO } from './helpers.js';

const REGISTRY = `kind: ContainerRegistry
name: ecr
spec:
  data:
    registryType: AWS_ECR
    registryDomain: 1.dkr.ecr.us-east-1.amazonaws.com
    awsAuthType: AWS_IAM
    crossAccountCredentials:
      roleArn: \${env:ECR_ROLE_ARN}
      externalId: ext-1
`;

describe('a placeholder value from export --dotenv-out', () => {
  it('validates where the real value has a shape (an ARN)', async () => {
    const dir = await makeRepo({ 'postureops.yaml': ROOT_TWO, 'ecr.yaml': REGISTRY });
    const result = await loadConfig(dir, { env: { ECR_ROLE_ARN: WRITE_ONLY_PLACEHOLDER } });
    expect(errorsOf(result.diagnostics)).toEqual([]);
  });

  it('a real value of the wrong shape is still judged: the ARN format is a guess, so a warning', async () => {
    const dir = await makeRepo({ 'postureops.yaml': ROOT_TWO, 'ecr.yaml': REGISTRY });
    const result = await loadConfig(dir, { env: { ECR_ROLE_ARN: 'not-an-arn' } });
    expect(codes(errorsOf(result.diagnostics))).toEqual([]);
    expect(codes(result.diagnostics)).toContain('format');
  });
});
