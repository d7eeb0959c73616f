// `npm run generate -w packages/sdk`: rewrites src/generated/openapi.ts from the server's routes.
import fs from 'node:fs';
import { documentPaths, GENERATED_FILE, openApiDocument, renderTypes } from './openapi-types.ts';

const document = await openApiDocument();
const source = await renderTypes(document);
const before = fs.existsSync(GENERATED_FILE) ? fs.readFileSync(GENERATED_FILE, 'utf8') : '';
fs.writeFileSync(GENERATED_FILE, source);
process.stdout.write(
  `${before === source ? 'Unchanged' : 'Wrote'} ${GENERATED_FILE} (${documentPaths(document).length} paths)\n`,
);
