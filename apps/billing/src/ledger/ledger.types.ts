import { ErrorCode, ServiceError } from '@wds/contracts';

export type ReservationStatus = 'reserved' | 'settled' | 'released';
/** `request`: one request's hold. `block`: credits a replica spends locally (see credit-blocks). */
export type ReservationKind = 'request' | 'block';

export interface Reservation {
  id: string;
  teamId: string;
  requestKey: string;
  amount: number;
  charged: number;
  shortfall: number;
  status: ReservationStatus;
  attempt: number;
  expiresAt: Date;
  kind: ReservationKind;
}

export interface ReservationOutcome {
  reservation: Reservation;
  /** The team's balance after the operation. */
  balance: number;
  /** True when the call changed nothing because it had already been applied (a retry). */
  replayed: boolean;
}

/** Credits are whole numbers; the wire schema allows any number, the ledger does not. */
export function assertWholeCredits(value: number, field: string): void {
  if (!Number.isSafeInteger(value)) {
    throw new ServiceError(ErrorCode.BAD_REQUEST, `${field}: credits must be a whole number`);
  }
}
