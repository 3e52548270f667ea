import openapiTS, { astToString } from 'openapi-typescript';
import { doNotEditHeader } from './contract.js';

/**
 * openapi-typescript's independent reading of the contract. Type tests compare the server's
 * and the SDK's types against these `paths`, so a bug in either generator cannot hide.
 */
export async function generatePathTypes(contract: object): Promise<string> {
  const ast = await openapiTS(contract as Parameters<typeof openapiTS>[0], { exportType: true });
  return `${doNotEditHeader('openapi/openapi.yaml via openapi-typescript').join('\n')}\n\n${astToString(ast)}`;
}
