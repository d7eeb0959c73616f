import type { Config, Secrets } from './config.ts';
import { AccountService } from './domain/accounts.ts';
import { CheckService } from './domain/checks.ts';
import { DecisionService, DecisionStore } from './domain/decisions.ts';
import { EvaluatorRegistry, TextEvaluator } from './domain/evaluators.ts';
import { KeyService } from './domain/keys.ts';
import { PolicyService } from './domain/policies/service.ts';
import { LocalTextProvider } from './providers/local-text.ts';
import type { Provider } from './providers/provider.ts';
import { ProviderRegistry } from './providers/registry.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase, pingDatabase } from './storage/database.ts';
import { AccountRepository } from './storage/repositories/accounts.ts';
import { ApiKeyRepository } from './storage/repositories/api-keys.ts';
import { IdempotencyRepository } from './storage/repositories/idempotency.ts';
import { PolicyRepository } from './storage/repositories/policies.ts';

/** Replacements for tests only; production builds everything from config. */
export interface ContextOverrides {
  textProvider?: Provider;
}

/** Every long-lived dependency, built once. Routes and tasks receive it and never construct dependencies. */
export interface AppContext {
  config: Config;
  secrets: Secrets;
  database: DatabaseHandle;
  providers: ProviderRegistry;
  evaluators: EvaluatorRegistry;
  accounts: AccountService;
  keys: KeyService;
  policies: PolicyService;
  decisions: DecisionService;
  decisionStore: DecisionStore;
  checks: CheckService;
  idempotency: IdempotencyRepository;
  /** Readiness of each part, for /readyz. */
  readiness(): Promise<Record<string, boolean>>;
  close(): Promise<void>;
}

export async function createContext(
  config: Config,
  secrets: Secrets,
  overrides: ContextOverrides = {},
): Promise<AppContext> {
  const database = openDatabase(config.database);
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  const { db } = database;
  const accountRepo = new AccountRepository(db);
  const textProvider = overrides.textProvider ?? new LocalTextProvider();
  const providers = new ProviderRegistry([textProvider]);
  const evaluators = new EvaluatorRegistry();
  evaluators.register(new TextEvaluator(textProvider));
  const decisionStore = new DecisionStore(db);
  const policies = new PolicyService(new PolicyRepository(db, database.engine));
  const decisions = new DecisionService(decisionStore, config.publicUrl);
  let closed = false;
  return {
    config,
    secrets,
    database,
    providers,
    evaluators,
    accounts: new AccountService(accountRepo),
    keys: new KeyService(new ApiKeyRepository(db), accountRepo),
    policies,
    decisions,
    decisionStore,
    checks: new CheckService(policies, evaluators, decisionStore, decisions),
    idempotency: new IdempotencyRepository(db),
    async readiness() {
      const storage = await pingDatabase(db).then(
        () => true,
        () => false,
      );
      return { storage, models: providers.all().length > 0 && !closed };
    },
    async close() {
      if (closed) return;
      closed = true;
      await providers.close();
      await database.close();
    },
  };
}
