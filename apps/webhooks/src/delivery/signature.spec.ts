import { signatureFor } from './signature';

describe('signatureFor', () => {
  it('matches the RFC 4231 HMAC-SHA256 test case 2', () => {
    // Key "Jefe", data "what do ya want for nothing?".
    expect(signatureFor('Jefe', Buffer.from('what do ya want for nothing?'))).toBe(
      'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('signs bytes, so a re-serialised body does not verify', () => {
    const raw = Buffer.from('{"a":1,"b":"é"}');
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(raw.toString()), null, 1));
    expect(signatureFor('s', raw)).not.toBe(signatureFor('s', reserialised));
  });
});
