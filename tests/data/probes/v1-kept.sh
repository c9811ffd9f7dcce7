echo '@@rbln-probe v1'
echo '@@infiniband'
for f in /sys/class/infiniband/*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@uverbs'
for f in /dev/infiniband/uverbs*; do [ -e "$f" ] || continue; n="${f##*/}"; d=''; \
read -r d 2>/dev/null < "/sys/class/infiniband_verbs/$n/ibdev"; echo "$n $d"; done
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
echo '@@end'
