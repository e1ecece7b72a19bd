import struct, sys
from collections import Counter
def load(fn):
    f=open(fn,'rb').read(); pos=24; pk=[]
    while pos+16<=len(f):
        s,ns,incl,orig=struct.unpack('<IIII',f[pos:pos+16]); d=f[pos+16:pos+16+incl]; pos+=16+incl
        if len(d)<54 or d[12:14]!=b'\x08\x00': continue
        ihl=(d[14]&15)*4; ip=d[14:14+ihl]; tcp=d[14+ihl:]
        if ip[9]!=6: continue
        sp,dp,seq,ack,off,fl,win=struct.unpack('!HHIIBBH',tcp[:16]); thl=(off>>4)*4
        pk.append((s+ns*1e-9,bytes(ip[12:16]),seq,ack,max(orig-14-ihl-thl,0),win,sp,dp))
    return pk
snd=load(sys.argv[1]); rcv=load(sys.argv[2])
c=Counter((p[1],p[6]) for p in snd if p[4]>0); (src,port)=c.most_common(1)[0][0]
data=[p for p in snd if p[1]==src and p[6]==port and p[4]>0]
base=data[0][2]; t0=data[0][0]
gaps=[(a[0],b[0]) for a,b in zip(data,data[1:]) if b[0]-a[0]>0.1]
print(len(gaps),"gaps")
def show(pk,g0,g1,label):
    for p in pk:
        if g0-0.004<=p[0]<=g1+0.002:
            if p[1]==src and p[6]==port: print("  %s %.6f DATA %10d len %6d"%(label,p[0]-t0,p[2]-base,p[4]))
            elif p[7]==port: print("  %s %.6f  ACK %10d win %d"%(label,p[0]-t0,p[3]-base,p[5]))
for g0,g1 in gaps[:int(sys.argv[3])]:
    print("==== gap %.3f -> %.3f"%(g0-t0,g1-t0)); print(" sender:"); show(snd,g0,g1,"S"); print(" receiver:"); show(rcv,g0,g1,"R")
print("classification:")
for g0,g1 in gaps:
    sa=[p for p in snd if g0-0.01<=p[0]<g1 and p[7]==port]
    ra=[p for p in rcv if g0-0.01<=p[0]<g1 and p[7]==port]
    ms=max(p[3] for p in sa) if sa else None; mr=max(p[3] for p in ra) if ra else None
    rx=[p for p in rcv if g0-0.003<=p[0]<g1 and p[1]==src and p[6]==port]
    hi=max((p[2]+p[4] for p in data if p[0]<=g0), default=0)
    dups=sum(1 for p in sa if p[3]==ms)
    print("  gap %.3f: sender's highest ACK %d, receiver's %d, data out to %d; %s; %d ACKs at the sender's highest"%(
        g0-t0, ms-base, mr-base, hi-base, "ACK LOST (the receiver acknowledged more than reached the sender)" if mr>ms else "no ACK lost", dups))
