import time, numpy as np, symnb as sn, symnb.tensor as T
from symnb.printing.graph_model import GraphPicture
from symnb.printing.layout import layout
from symnb.printing.svg import picture_svg
x = T.vector("x", test_value=np.array([1, 2, 3], "float32"))
b = sn.shared(np.float32(0.5), name="b")
y = T.exp(T.log(x)) * 2
z = (y + b).sum()
for eng in ("layered", "dot"):
    p = GraphPicture(z); l = layout(p, eng); s = picture_svg(p, l)
    open(f"/tmp/g_{eng}.html","w").write(s)
    print(eng, l.width, l.height, len(s))
# scan
def step(a, acc): return acc + a * 2
out, _ = sn.scan(step, sequences=[x], outputs_info=[T.zeros((), "float32")])
p = GraphPicture(out, expanded=["n1"]); print([ (n.id, n.label, n.sublabel, n.has_inner) for n in p.nodes.values()])
for n in p.nodes.values():
    if n.has_inner:
        p = GraphPicture(out, expanded=[n.id]); print("inner", [(k, v.label) for inner in p.nodes[n.id].inner for k, v in inner.picture.nodes.items()])
        l = layout(p, "layered"); open("/tmp/g_scan.html","w").write(picture_svg(p, l))
# big
w = x
for i in range(1000):
    w = T.tanh(w * np.float32(0.5) + x)
for eng in ("layered","dot"):
    t=time.perf_counter(); p = GraphPicture(w); t1=time.perf_counter(); l = layout(p, eng); t2=time.perf_counter(); s = picture_svg(p, l); t3=time.perf_counter()
    print(eng, p.count(), f"model {t1-t:.2f} layout {t2-t1:.2f} svg {t3-t2:.2f}", len(s))
