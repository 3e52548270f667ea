/** A command line that cannot run as written: both bins print its message with their usage and exit with 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
