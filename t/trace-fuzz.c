#include "config.h"
#include "t/tap.h"
int main(void){return tap_done();}
