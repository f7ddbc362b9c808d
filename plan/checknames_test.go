package plan

import (
	"reflect"
	"testing"
)

func TestCheckConstraintsOfShowCreate(t *testing.T) {
	create := "CREATE TABLE `t` (\n  `id` int NOT NULL,\n  PRIMARY KEY (`id`),\n" +
		"  CONSTRAINT `t_fk` FOREIGN KEY (`id`) REFERENCES `p` (`id`),\n" +
		"  CONSTRAINT `t_chk_1` CHECK ((`id` > 0)),\n" +
		"  CONSTRAINT `a``b` CHECK ((`id` <> 7)) /*!80016 NOT ENFORCED */\n) ENGINE=InnoDB"
	want := []CheckConstraint{{"t_chk_1", "CHECK ((`id` > 0))"}, {"a`b", "CHECK ((`id` <> 7)) /*!80016 NOT ENFORCED */"}}
	if got := CheckConstraints(create); !reflect.DeepEqual(got, want) {
		t.Errorf("CheckConstraints = %q, want %q", got, want)
	}
	for name, want := range map[string]string{"t_chk_1": "1", "t_chk_x": "x", "t_chk_": "", "v_pos": "", "tt_chk_1": ""} {
		if got, _ := GeneratedCheckSuffix("t", name); got != want {
			t.Errorf("GeneratedCheckSuffix(t, %s) = %q, want %q", name, got, want)
		}
	}
}

func TestRenameConstraintRefs(t *testing.T) {
	body := "DROP CHECK t_chk_1, ADD CHECK (x > 0), ALTER CHECK `V_POS` NOT ENFORCED, DROP CONSTRAINT IF EXISTS other, DROP COLUMN t_chk_1"
	got, err := RenameConstraintRefs(body, map[string]string{"t_chk_1": "_t_gho_chk_1", "v_pos": "_t_gho_k1"})
	want := "DROP CHECK `_t_gho_chk_1`, ADD CHECK (x > 0), ALTER CHECK `_t_gho_k1` NOT ENFORCED, DROP CONSTRAINT IF EXISTS other, DROP COLUMN t_chk_1"
	if err != nil || got != want {
		t.Errorf("RenameConstraintRefs = %q, %v; want %q", got, err, want)
	}
	_, dropped, err := ConstraintRefs(body)
	if err != nil || !reflect.DeepEqual(dropped, map[string]bool{"t_chk_1": true, "other": true}) {
		t.Errorf("dropped = %v, %v", dropped, err)
	}
}
