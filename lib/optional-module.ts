/**
 * Packages a plain install may lack: the optional dependencies (bullmq and ioredis, only for
 * `batch --queue`). A missing one becomes MINICODE_E_MISSING_DEPENDENCY with the exact install command, never a
 * module-resolution crash. Loaders are injectable so that tests can simulate a missing package
 * without uninstalling it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MinicodeError } from './errors.js';
import { definedOnly } from './defined-only.js';

/** Loads a module; the default is a dynamic `import()`. */
export type ModuleLoader<T> = () => Promise<T>;

/** True when `error` says a module (or one of its own imports) cannot be found. */
export function isModuleNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/** The version minicode's package.json pins for `name` (in any dependency list), if any. */
export function pinnedVersion(name: string): string | undefined {
  // Walk up from this module: it runs from lib/ in tests and from dist/lib/ when installed.
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string } & Record<string, unknown>;
      if (pkg.name === 'minicode') {
        for (const list of ['dependencies', 'optionalDependencies', 'devDependencies']) {
          const version = (pkg[list] as Record<string, string> | undefined)?.[name];
          if (version) return version;
        }
        return undefined;
      }
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The npm command that installs `names` at the versions minicode pins. */
export function installCommand(names: readonly string[]): string {
  return `npm install --no-save ${names.map((n) => (pinnedVersion(n) ? `${n}@${pinnedVersion(n)}` : n)).join(' ')}`;
}

/** The coded error for packages that `purpose` needs and that are not installed. */
export function missingDependency(names: readonly string[], purpose: string, cause?: unknown): MinicodeError {
  const list = names.join(', ');
  return new MinicodeError(
    'MINICODE_E_MISSING_DEPENDENCY',
    `${purpose} needs ${names.length === 1 ? 'the package' : 'the packages'} ${list}, not installed here`,
    definedOnly({
      action: `install ${names.length === 1 ? 'it' : 'them'} with \`${installCommand(names)}\``,
      data: { packages: [...names] },
      cause,
    }),
  );
}

/** Load an optional module; a missing package is MINICODE_E_MISSING_DEPENDENCY naming `packages`. */
export async function loadOptional<T>(load: ModuleLoader<T>, packages: readonly string[], purpose: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isModuleNotFound(error)) throw missingDependency(packages, purpose, error);
    throw error;
  }
}
