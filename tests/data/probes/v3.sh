echo '@@rbln-probe v3'
echo '@@net'
for f in /sys/class/net/*; do [ -e "$f" ] || continue; n="${f##*/}"; [ "$n" = lo ] && continue; \
s=''; m=''; p=''; read -r s 2>/dev/null < "$f/operstate"; read -r m 2>/dev/null < "$f/mtu"; \
[ -e "$f/device" ] && p=$(cd -P "$f/device" 2>/dev/null && pwd -P); \
echo "$n state=$s mtu=$m pci=${p##*/}"; done
echo '@@rdma'
for f in /sys/class/infiniband/*; do [ -e "$f" ] || continue; n="${f##*/}"; s=''; l=''; p=''; u=''; \
for q in "$f"/ports/*; do [ -e "$q" ] || continue; read -r s 2>/dev/null < "$q/state"; \
read -r l 2>/dev/null < "$q/link_layer"; break; done; p=$(cd -P "$f/device" 2>/dev/null && pwd -P); \
for v in "$f"/device/infiniband_verbs/uverbs*; do [ -e "$v" ] && u="${v##*/}"; done; \
s="${s#*: }"; echo "$n port=$s link=$l pci=${p##*/} uverbs=$u"; done
echo '@@infiniband'
for f in /sys/class/infiniband/*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@uverbs'
for f in /dev/infiniband/uverbs*; do [ -e "$f" ] || continue; n="${f##*/}"; d=''; o=no; \
read -r d 2>/dev/null < "/sys/class/infiniband_verbs/$n/ibdev"; (exec 3<>"$f") 2>/dev/null && o=yes; \
echo "$n $d open=$o"; done
echo '@@npu'
for f in /dev/rbln[0-9]*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@rsd'
for f in /dev/rsd*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@rds'
for f in /dev/rblnfs*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@memlock'
ulimit -H -l
echo '@@uid'
id -u 2>/dev/null
echo '@@netns'
m=''; read -r m 2>/dev/null < /sys/module/ib_core/parameters/netns_mode; echo "$m"
echo '@@capeff'
c=''; [ -r /proc/self/status ] && while read -r k v; do [ "$k" = CapEff: ] && c="$v" && break; \
done < /proc/self/status; echo "$c"
echo '@@uidmap'
u=''; read -r u 2>/dev/null < /proc/self/uid_map; echo "$u"
echo '@@end'
