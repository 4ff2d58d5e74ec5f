# U-Boot's part of the card's boot order (deploy/image.sh makes boot.scr of it; RAUC's part is
# deploy/image/clabber-slot). clabber-slot.env on this partition holds BOOT_ORDER and each slot's
# boots left: the first slot in the order with a boot left starts, one boot taken first, written
# back before the kernel loads. With no boot left anywhere, A and B start again from the top.
setenv BOOT_ORDER "A B"
setenv BOOT_A_LEFT 3
setenv BOOT_B_LEFT 3
setenv CMDLINE "console=tty1"
if load ${devtype} ${devnum}:${distro_bootpart} ${scriptaddr} clabber-boot.env; then
  env import -t ${scriptaddr} ${filesize} CMDLINE
fi
if load ${devtype} ${devnum}:${distro_bootpart} ${scriptaddr} clabber-slot.env; then
  env import -t ${scriptaddr} ${filesize} BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT
fi
setenv slot
for s in ${BOOT_ORDER}; do
  if test -z "${slot}"; then
    if test "${s}" = A && test ${BOOT_A_LEFT} -gt 0; then
      setexpr BOOT_A_LEFT ${BOOT_A_LEFT} - 1; setenv slot A; setenv part 2
    fi
    if test "${s}" = B && test ${BOOT_B_LEFT} -gt 0; then
      setexpr BOOT_B_LEFT ${BOOT_B_LEFT} - 1; setenv slot B; setenv part 3
    fi
  fi
done
if test -z "${slot}"; then
  echo "clabber: no system has a boot left: A and B again from the top"
  setenv BOOT_ORDER "A B"; setenv BOOT_A_LEFT 2; setenv BOOT_B_LEFT 3; setenv slot A; setenv part 2
fi
env export -t ${scriptaddr} BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT
fatwrite ${devtype} ${devnum}:${distro_bootpart} ${scriptaddr} clabber-slot.env ${filesize}
part uuid ${devtype} ${devnum}:${part} rootuuid
echo "clabber: starting system ${slot} (order ${BOOT_ORDER}; boots left: A ${BOOT_A_LEFT}, B ${BOOT_B_LEFT})"
# The Pi's U-Boot puts the ramdisk close above the kernel: moved up, clear of Debian's kernel.
if test "${board}" = rpi; then setenv ramdisk_addr_r 0x08000000; fi
load ${devtype} ${devnum}:${part} ${kernel_addr_r} /boot/clabber/Image
load ${devtype} ${devnum}:${part} ${ramdisk_addr_r} /boot/clabber/initrd.img
setenv bootargs "${CMDLINE} root=PARTUUID=${rootuuid} ro rootwait rauc.slot=${slot}"
booti ${kernel_addr_r} ${ramdisk_addr_r}:${filesize} ${fdtcontroladdr}
echo "clabber: system ${slot} did not start"
