import { Injectable } from '@nestjs/common';
import {
  maskApiKey,
  type UsageCurrentReply,
  type UsageHistoricalReply,
  type UsageMonth,
} from '@wds/contracts';
import { Database } from '@wds/database';
import { GetBalance } from '../ledger/get-balance.usecase';

/** First instant of the UTC month of `d`, and of the month `offset` months later. */
function monthStart(d: Date, offset = 0): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + offset, 1));
}

function period(month: Date): { startDate: string; endDate: string } {
  return {
    startDate: month.toISOString(),
    endDate: new Date(monthStart(month, 1).getTime() - 1).toISOString(),
  };
}

/** A team's balance, the credits granted to it so far, and the current period (the UTC month). */
@Injectable()
export class GetCurrentUsage {
  constructor(
    private readonly db: Database,
    private readonly balance: GetBalance,
  ) {}

  async execute(teamId: string): Promise<UsageCurrentReply> {
    const [remaining, granted] = await Promise.all([
      this.balance.execute(teamId),
      this.db.query<{ granted: string }>(
        `SELECT COALESCE(sum(delta), 0) AS granted FROM billing.ledger_entries WHERE team_id = $1 AND kind = 'grant'`,
        [teamId],
      ),
    ]);
    const p = period(monthStart(new Date()));
    return {
      remainingCredits: remaining,
      planCredits: Math.max(0, Number(granted.rows[0].granted)),
      billingPeriodStart: p.startDate,
      billingPeriodEnd: p.endDate,
    };
  }
}

interface MonthRow {
  month: Date;
  api_key: string;
  credits: string;
  llm_input_tokens: string;
  llm_output_tokens: string;
}

/**
 * Credits and LLM tokens per UTC calendar month (oldest first) from `usage_monthly`: every month
 * from the team's first usage to the current one, or with `byApiKey` one period per month and key
 * that has usage (usage made without a key has no `apiKey`).
 */
@Injectable()
export class GetHistoricalUsage {
  constructor(private readonly db: Database) {}

  async execute(teamId: string, byApiKey: boolean): Promise<UsageHistoricalReply> {
    const { rows } = await this.db.query<MonthRow>(
      `SELECT month::timestamp AT TIME ZONE 'UTC' AS month, api_key, credits::text, llm_input_tokens::text,
              llm_output_tokens::text
       FROM billing.usage_monthly WHERE team_id = $1 ORDER BY month, api_key`,
      [teamId],
    );
    const toPeriod = (month: Date, r: Omit<MonthRow, 'month'> | undefined, apiKey?: string): UsageMonth => ({
      ...period(month),
      ...(apiKey ? { apiKey: maskApiKey(apiKey) } : {}),
      creditsUsed: Number(r?.credits ?? 0),
      llmInputTokens: Number(r?.llm_input_tokens ?? 0),
      llmOutputTokens: Number(r?.llm_output_tokens ?? 0),
    });
    if (byApiKey) {
      const kept = rows.filter(
        (r) => Number(r.credits) + Number(r.llm_input_tokens) + Number(r.llm_output_tokens) > 0,
      );
      return { periods: kept.map((r) => toPeriod(r.month, r, r.api_key || undefined)) };
    }
    const byMonth = new Map<number, Omit<MonthRow, 'month'>>();
    for (const r of rows) {
      const t = r.month.getTime();
      const sum = byMonth.get(t);
      byMonth.set(t, {
        api_key: '',
        credits: String(Number(sum?.credits ?? 0) + Number(r.credits)),
        llm_input_tokens: String(Number(sum?.llm_input_tokens ?? 0) + Number(r.llm_input_tokens)),
        llm_output_tokens: String(Number(sum?.llm_output_tokens ?? 0) + Number(r.llm_output_tokens)),
      });
    }
    const current = monthStart(new Date());
    let month = rows.length > 0 ? monthStart(rows[0].month) : current;
    const periods: UsageMonth[] = [];
    for (; month.getTime() <= current.getTime(); month = monthStart(month, 1)) {
      periods.push(toPeriod(month, byMonth.get(month.getTime())));
    }
    return { periods };
  }
}
