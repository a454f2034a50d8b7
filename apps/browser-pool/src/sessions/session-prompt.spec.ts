import { stepLog } from './session-prompt';

describe('interact prompt step log (stdout)', () => {
  it('writes one line per step: action, target, value, outcome, detail', () => {
    const log = stepLog([
      { step: 1, action: 'click', target: 'e4 link "Catalogue"', outcome: 'ok', url: 'http://s/c', ms: 20 },
      {
        step: 2,
        action: 'fill',
        target: 'e8 textbox "Name"',
        value: 'Ada',
        outcome: 'error',
        detail: 'Timeout\n 5000ms',
        url: 'http://s/c',
        ms: 5000,
      },
      {
        step: 3,
        action: 'navigate',
        target: 'file:///etc/passwd',
        outcome: 'refused',
        detail: 'the file: scheme is not allowed',
        url: 'http://s/c',
        ms: 0,
      },
      { step: 4, action: 'finish', outcome: 'ok', url: 'http://s/c', ms: 0 },
    ]);
    expect(log.split('\n')).toEqual([
      '[1] click e4 link "Catalogue" -> ok',
      '[2] fill e8 textbox "Name" "Ada" -> error: Timeout 5000ms',
      '[3] navigate file:///etc/passwd -> refused: the file: scheme is not allowed',
      '[4] finish -> ok',
    ]);
  });
});
