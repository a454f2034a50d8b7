/**
 * Conditions a service knows make it unhealthy although it runs and reaches NATS and PostgreSQL
 * (say, webhook attempts stuck past their deadline). Features register a check; every instance
 * reports the current problems with its discovery stats, and the gateway's `GET /health` names them.
 */
export class HealthProblems {
  private readonly checks = new Map<string, () => string | null>();

  /** `check` returns a short description of the problem, or null when there is none. */
  register(name: string, check: () => string | null): void {
    this.checks.set(name, check);
  }

  current(): string[] {
    const out: string[] = [];
    for (const [name, check] of this.checks) {
      let problem: string | null;
      try {
        problem = check();
      } catch (err) {
        problem = `health check failed: ${err instanceof Error ? err.message : String(err)}`;
      }
      if (problem !== null) out.push(`${name}: ${problem}`);
    }
    return out;
  }
}
