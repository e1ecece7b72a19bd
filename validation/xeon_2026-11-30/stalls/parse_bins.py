import re, sys, collections
f=sys.argv[1]; bin_s=float(sys.argv[2]) if len(sys.argv)>2 else 0.01
pr=re.compile(r'\[(\d+)\] (\S+) +([\d.]+): tcp_probe: .*src=[\d.]+:(\d+) .*data_len=(\d+) snd_nxt=0x(\w+) snd_una=0x(\w+) snd_cwnd=(\d+) .*snd_wnd=(\d+) srtt=(\d+) rcv_wnd=(\d+)')
sw=re.compile(r'\[(\d+)\] \S+ +([\d.]+): sched_switch: prev_comm=(\S+) prev_pid=(\d+) .*prev_state=(\S+) ==> next_comm=(\S+) next_pid=(\d+)')
bins=collections.defaultdict(lambda: dict(rx=0,rxb=0,big=0,ack=0,minw=10**12,zw=0,flight=0,soft=0,proc=0,rcpu1=0))
t0=None; sleeps=[]; off={}
for line in open(f):
    m=pr.search(line)
    if m:
        cpu,flags,t,sport,dl,nxt,una,cw,wnd,srtt,rw=m.groups(); t=float(t)
        if t0 is None: t0=t
        b=bins[int((t-t0)/bin_s)]
        dl=int(dl)
        if sport=='5301':
            if dl>0:
                b['rx']+=1; b['rxb']+=dl; b['big']+= dl>8000
                if 's' in flags: b['soft']+=1
                else: b['proc']+=1
                if cpu=='001': b['rcpu1']+=1
        else:
            b['ack']+=1; w=int(wnd); b['minw']=min(b['minw'],w); b['zw']+= w<65536
            b['flight']=max(b['flight'],(int(nxt,16)-int(una,16))%2**32)
        continue
    m=sw.search(line)
    if m and t0:
        cpu,t,pc,pp,st,nc,np_=m.groups(); t=float(t)
        if pc=='iperf3': off[pp]=t
        if nc=='iperf3' and np_ in off:
            gap=t-off.pop(np_)
            if gap>0.0005: sleeps.append((round(t-t0,4),np_,cpu,round(gap*1e3,2)))
print('bin t | rx skbs, mean KB, >8KB share, softirq share, on cpu1 | acks, min snd_wnd KB, wnd<64K acks, max flight KB')
for k in sorted(bins):
    b=bins[k]
    if b['rx']==0: continue
    print(f"{k*bin_s:6.3f} {b['rx']:6d} {b['rxb']/b['rx']/1e3:6.1f} {b['big']/b['rx']:.2f} {b['soft']/b['rx']:.2f} {b['rcpu1']/b['rx']:.2f} | {b['ack']:5d} {b['minw']/1e3:7.0f} {b['zw']:4d} {b['flight']/1e3:6.0f}  {b['rxb']*8/bin_s/1e9:5.2f}G")
print('off-CPU gaps > 0.5 ms (t, pid, cpu, ms):', sleeps[:60], len(sleeps))
