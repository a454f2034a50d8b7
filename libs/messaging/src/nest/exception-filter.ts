import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { throwError, type Observable } from 'rxjs';

/**
 * Hands every handler error to the transport unchanged. Nest's default RPC filter turns anything but
 * an `RpcException` into `{status:'error', message:'Internal server error'}`, which would lose the
 * `ServiceError` (code, details, retry-after) that the transport answers with, and for consumers the
 * failure that decides nak versus dead letter.
 */
@Catch()
export class RethrowRpcExceptionFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}
