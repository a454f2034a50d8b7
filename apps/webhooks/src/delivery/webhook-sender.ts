import { OutboundHttp } from '@wds/outbound';

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
}

/** POSTs one delivery attempt (port; `OutboundWebhookSender` is the network-policy-enforcing implementation). */
export abstract class WebhookSender {
  /** The receiver's status code; throws a ServiceError when no answer came (policy, timeout, network). */
  abstract send(req: SendRequest): Promise<{ status: number }>;
}

/** Answers larger than this are not the receiver's business: acknowledgements are small. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export class OutboundWebhookSender extends WebhookSender {
  constructor(private readonly http: OutboundHttp) {
    super();
  }

  async send(req: SendRequest): Promise<{ status: number }> {
    const res = await this.http.request({
      url: req.url,
      method: 'POST',
      headers: req.headers,
      body: req.body,
      timeoutMs: req.timeoutMs,
      // A redirect would turn the POST into a GET (301/302/303) or move it to an unvetted target
      // the receiver did not configure: deliveries go to the configured URL only.
      maxRedirects: 0,
      maxBytes: MAX_ANSWER_BYTES,
    });
    return { status: res.status };
  }
}
