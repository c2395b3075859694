# Shared by the fleet scripts (sourced, not run): per-gateway roles made with the product's own
# commands. The owner's URL is in $FLEET_OWNER_URL; URLs with passwords go through variables and
# files only, never through a process's arguments.

# fleet_role_url KIND NAME REST: creates the login role NAME (KIND gateway or reader) with
# `bracelet fleet add-KIND --json` and prints postgresql://NAME:PASSWORD@REST.
fleet_role_url() {
  local kind=$1 name=$2 rest=$3 json
  json=$(BRACELET_POSTGRES_URL=$FLEET_OWNER_URL "$BRACELET" fleet "add-$kind" "$name" --json) || return 1
  python3 -c 'import json, sys; c = json.load(sys.stdin); print("postgresql://%s:%s@%s" % (c["role"], c["password"], sys.argv[1]))' \
    "$rest" <<<"$json"
}

# fleet_owner SUBCOMMAND ARGS...: a `bracelet fleet` administration command as the owner.
fleet_owner() {
  BRACELET_POSTGRES_URL=$FLEET_OWNER_URL "$BRACELET" fleet "$@"
}
