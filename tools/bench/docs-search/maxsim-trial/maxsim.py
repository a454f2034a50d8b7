# Session 27's MaxSim trial, step 2: re-ranks the shipped retriever's first 25 passages (dump.js) by
# ColBERT-style MaxSim over all-MiniLM-L6-v2's token vectors (each question token's best cosine with
# a passage token, averaged; flat or IDF-weighted), alone and fused with the shipped order by
# reciprocal ranks, and prints recall@3 per question group. An experiment, not part of the service.
import json, math, re, sys, collections
import numpy as np, onnxruntime as ort
from tokenizers import Tokenizer
import os
D=os.environ.get('WDS_DOCS_EMBEDDING_DIR', os.path.expanduser('~/.cache/wds/models/all-MiniLM-L6-v2-int8')).rstrip('/')+'/'
tok=Tokenizer.from_file(D+'tokenizer.json'); tok.no_padding(); tok.no_truncation()
sess=ort.InferenceSession(D+'model.onnx', providers=['CPUExecutionProvider'])
names=[i.name for i in sess.get_inputs()]
data=json.load(open('/tmp/exp/top25.json'))
def tokvecs(text, maxlen=256, stride=200):
    enc=tok.encode(text)
    ids=enc.ids[1:-1]; toks=enc.tokens[1:-1]
    outv=[]; outt=[]
    start=0
    while True:
        chunk=ids[start:start+maxlen-2]
        arr=np.array([[101]+chunk+[102]],dtype=np.int64)
        feed={'input_ids':arr,'attention_mask':np.ones_like(arr)}
        if 'token_type_ids' in names: feed['token_type_ids']=np.zeros_like(arr)
        h=sess.run(None, feed)[0][0][1:-1]
        if start==0: outv.append(h); outt+=toks[start:start+maxlen-2]
        else:
            skip=maxlen-2-stride
            outv.append(h[skip:]); outt+=toks[start+skip:start+maxlen-2]
        if start+maxlen-2>=len(ids): break
        start+=stride
    v=np.concatenate(outv) if outv else np.zeros((0,384),dtype=np.float32)
    v=v/np.maximum(np.linalg.norm(v,axis=1,keepdims=True),1e-9)
    return v, outt
P={}
for q in data:
    for c in q['cands']:
        if c['ref'] not in P: P[c['ref']]=c['title']+'\n'+c['body']
print('passages', len(P), file=sys.stderr)
PV={}
for k,(ref,text) in enumerate(P.items()):
    PV[ref]=tokvecs(text)
df=collections.Counter()
for ref,(v,t) in PV.items():
    for w in set(t): df[w]+=1
N=len(PV)
punct=re.compile(r'^[\W_]+$')
STOP=set('the a an of to in on and or is are be i we our my it do does can how what which when why if for with at by from this that there as you your me us their they so any just get got'.split())
def qscore(qtext, mode):
    qv,qt=tokvecs(qtext)
    keep=[j for j,t in enumerate(qt) if not punct.match(t) and t not in STOP]
    if not keep: keep=list(range(len(qt)))
    qv=qv[keep]; qt=[qt[j] for j in keep]
    w=np.array([math.log(1+(N-df.get(t,0)+0.5)/(df.get(t,0)+0.5)) for t in qt]) if mode=='idf' else np.ones(len(qt))
    def s(ref):
        pv=PV[ref][0]
        if len(pv)==0: return 0.0
        m=(qv@pv.T).max(axis=1)
        return float((m*w).sum()/w.sum())
    return s
groups=sorted(set(q['group'] for q in data))
def evaluate(order_fn, label):
    hits=collections.defaultdict(list)
    for q in data:
        order=order_fn(q)
        ok=any(q['cands'][j]['ok'] for j in order[:3])
        hits[q['group']].append(ok); hits['all'].append(ok)
        if q['group'] in ('designed','design C','design D'): hits['design131'].append(ok)
    print(label.ljust(34), ' '.join(f"{g}={np.mean(hits[g]):.3f}" for g in ['all','design131']+groups))
base=lambda q: list(range(len(q['cands'])))
evaluate(base,'fusion (shipped)')
cache={}
for mode in ['flat','idf']:
    S={}
    for q in data:
        f=qscore(q['q'],mode); S[q['i']]=[f(c['ref']) for c in q['cands']]
    cache[mode]=S
    evaluate(lambda q: sorted(range(len(q['cands'])), key=lambda j:-S[q['i']][j]), f'maxsim {mode} alone')
    for depth in [10,25]:
        for w in [0.5,1.0,2.0]:
            def fn(q, w=w, depth=depth):
                n=min(depth,len(q['cands']))
                sc=S[q['i']][:n]
                rank=sorted(range(n), key=lambda j:-sc[j]); mr={j:r for r,j in enumerate(rank)}
                fused=sorted(range(n), key=lambda j:-(1/(60+j)+w/(60+mr[j])))
                return fused+list(range(n,len(q['cands'])))
            evaluate(fn, f'rrf {mode} top{depth} w{w}')
