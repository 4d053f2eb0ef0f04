package dirs

import "testing"

func TestResolve(t *testing.T) {
	for _, tt := range []struct {
		env           map[string]string
		config, state string
		wantErr       bool
	}{
		{map[string]string{"XDG_STATE_HOME": "/x/state", "XDG_CONFIG_HOME": "/x/cfg", "HOME": "/home/u"}, "/x/cfg/guard", "/x/state/guard", false},
		{map[string]string{"HOME": "/home/u"}, "/home/u/.config/guard", "/home/u/.local/state/guard", false},
		{map[string]string{"HOME": "/home/u/"}, "/home/u/.config/guard", "/home/u/.local/state/guard", false},
		{map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/home/u"}, "/home/u/.config/guard", "/home/u/.local/state/guard", false},
		// HOME must be absolute, whatever XDG says: the review needs it.
		{map[string]string{"HOME": "relative", "XDG_STATE_HOME": "/x/state", "XDG_CONFIG_HOME": "/x/cfg"}, "", "", true},
		{map[string]string{"HOME": ""}, "", "", true},
		{map[string]string{}, "", "", true},
	} {
		d, err := Resolve(func(k string) string { return tt.env[k] })
		if (err != nil) != tt.wantErr || d.Config != tt.config || d.State != tt.state {
			t.Errorf("Resolve(%v) = %+v, %v; want config %q, state %q, error %v", tt.env, d, err, tt.config, tt.state, tt.wantErr)
		}
	}
	d, _ := Resolve(func(k string) string { return map[string]string{"HOME": "/h"}[k] })
	if d.Approvals() != "/h/.local/state/guard/approvals" || d.UserPolicy() != "/h/.config/guard/policy.toml" || d.ConfigFile() != "/h/.config/guard/config.toml" {
		t.Errorf("paths: %s %s %s", d.Approvals(), d.UserPolicy(), d.ConfigFile())
	}
}
